import type { PrimaryKeyProp } from '@mikro-orm/core';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Each string property's value, `undefined` included where the property is optional, as a required field. */
type Fields<T> = { [K in Extract<keyof T, string>]: [T[K]] };
type PrimaryKeyOf<T> = T extends { [PrimaryKeyProp]?: infer K } ? K : 'none';

/**
 * `true` when the published entity interface `Published` describes exactly what MikroORM infers from the
 * schema: the same property names, each value mutually assignable (a nullable column is `T | null` and
 * optional in the interface, `T | null | undefined` in the inference: the same values), and the same
 * primary key. `never` otherwise, so `true satisfies Mutual<…>` fails to compile the moment the two drift
 * apart in either direction (a NOT NULL column published as optional, a narrower or wider type, a field
 * more or less, another primary key). `mutual.test-d.ts` proves each of those is refused.
 */
export type Mutual<Published, Inferred> =
  Same<Extract<keyof Published, string>, Extract<keyof Inferred, string>> extends true
    ? Same<Fields<Published>, Fields<Inferred>> extends true
      ? Same<PrimaryKeyOf<Published>, PrimaryKeyOf<Inferred>> extends true
        ? true
        : never
      : never
    : never;
