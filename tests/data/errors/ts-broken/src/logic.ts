import { User } from "./models";
// TS2307 cannot find module
import { missing } from "./does-not-exist";
// TS2305 module has no exported member
import { Account } from "./models";

// TS2304 cannot find name
export const total = undefinedTotal + 1;

// TS2552 cannot find name, did you mean
export function greet(user: User): string {
  return usr.name;
}

// TS2345 argument not assignable
function double(x: number): number {
  return x * 2;
}
export const d = double("2");

// TS2554 wrong argument count
export const d2 = double(1, 2);

// TS7006 parameter implicitly any
export function log(message) {
  return String(message);
}

// TS7030 not all code paths return a value
export function sign(x: number): number {
  if (x > 0) {
    return 1;
  }
}

// TS18047 possibly null
export function len(s: string | null): number {
  return s.length;
}

// TS18048 possibly undefined
export function first(xs: { v?: { w: number } }): number {
  return xs.v.w;
}

// TS2367 comparison with no overlap
export function same(a: "x" | "y"): boolean {
  return a === "z";
}

// TS2588 assign to constant
const fixed = 1;
fixed = 2;

// TS2540 assign to read-only property
const frozen: { readonly k: number } = { k: 1 };
frozen.k = 2;

// TS2349 not callable
const notFn = 5;
export const called = notFn();

// TS2362 arithmetic on non-number
export const arith = {} - 1;

// TS2448 / TS2454 used before declaration
export const early = later + 1;
const later = 3;

// TS2451 cannot redeclare block-scoped variable
let twice = 1;
let twice = 2;

// TS6133 declared but never read
function unusedLocal(): void {
  const unused = 1;
}

// TS18046 value is unknown
export function fromUnknown(v: unknown): number {
  return v.length;
}

export { missing, Account, unusedLocal, twice };
