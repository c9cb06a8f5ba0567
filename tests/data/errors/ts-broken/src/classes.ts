interface Shape {
  area(): number;
  name: string;
}

// TS2420 class incorrectly implements interface
export class Square implements Shape {
  area(): number {
    return 1;
  }
}

// TS2564 property not initialised
export class Box {
  size: number;
}

abstract class Animal {
  abstract speak(): string;
  move(): string {
    return "moves";
  }
}

// TS2515 abstract member not implemented
export class Dog extends Animal {}

// TS2511 cannot instantiate abstract class
export const a = new Animal();

// TS4114 override modifier required
export class Cat extends Animal {
  speak(): string {
    return "meow";
  }
  move(): string {
    return "sneaks";
  }
}

// TS2416 property not assignable to the same property in base type
export class Fish extends Animal {
  override speak(): number {
    return 0;
  }
}

// TS2351 not constructable
const notClass = 3;
export const inst = new notClass();

// TS2393 duplicate function implementation
export function dup(): void {}
export function dup(): void {}

// TS2769 no overload matches
export const parsed = [1, 2, 3].reduce((acc: string, x: number) => acc + x);

// TS2578 unused ts-expect-error
// @ts-expect-error
export const fine: number = 1;

// TS7053 element implicitly has an any type (no index signature)
const table = { a: 1, b: 2 };
export function lookup(key: string): number {
  return table[key];
}
