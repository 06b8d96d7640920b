/**
 * `true` when the published entity interface `Published` names exactly the (string) properties of the
 * type MikroORM infers from the schema, and every inferred row is a `Published`; `never` otherwise, so
 * `true satisfies Mutual<…>` fails to compile the moment the two drift apart. (Nullable columns are
 * optional in the interface, `T | null | undefined` in the inference: hence one direction of
 * assignability plus equal keys, not two directions.)
 */
export type Mutual<Published, Inferred> = [Inferred] extends [Published]
  ? [
      Exclude<keyof Inferred & string, keyof Published> | Exclude<keyof Published, keyof Inferred & string>,
    ] extends [never]
    ? true
    : never
  : never;
