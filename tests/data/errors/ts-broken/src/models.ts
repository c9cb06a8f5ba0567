// Deliberately broken: every block provokes one TypeScript diagnostic (see the comment codes).
export interface User {
  id: number;
  name: string;
  email: string;
}

export interface Point {
  x: number;
  y: number;
}

// TS2741 missing property
export const u1: User = { id: 1, name: "a" };

// TS2739 missing several properties
export const u2: User = { id: 2 };

// TS2353 unknown property in object literal
export const p1: Point = { x: 1, y: 2, z: 3 };

// TS2322 type not assignable
export const n: number = "one";

// TS2339 property does not exist
export function emailDomain(p: Point): string {
  return p.email;
}

// TS2551 property does not exist, did you mean
export function nameLength(u: User): number {
  return u.nmae.length;
}
