// What a request body may be, per operation: the media types it is read as, its largest size, and
// whether another site's page may post it (docs/architecture.md, "The operation table").

/** @internal A JSON media type: `application/json`, or a `+json` one such as SCIM's `application/scim+json`. */
export type JsonMediaType = 'application/json' | `application/${string}+json`;

/** @internal The media type of an HTML form post. */
export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/** @internal {@link FORM_MEDIA_TYPE} as a type. */
export type FormMediaType = typeof FORM_MEDIA_TYPE;

/** @internal Default body limit of JSON bodies: 16 KiB (the `bodyLimitBytes` option). */
export const DEFAULT_BODY_LIMIT_BYTES = 16 * 1024;

/**
 * @internal What an operation takes as its request body, when not its group's JSON (the `request` of an
 * operation):
 * - JSON of other media types (`['application/scim+json', 'application/json']`: the first is the one the
 *   document names first), or the group's with another limit;
 * - a form (`[FORM_MEDIA_TYPE]`): the fields as strings. Any site's page can post a form, so an operation
 *   that takes one is held to the same-origin rule (`403 csrf_rejected`, as cookie-authenticated changes
 *   are), unless it says `crossSite: true`: it is posted by another site on purpose (an identity
 *   provider's page posting a SAML response), and what binds the request to the browser is its own (a
 *   signed response, a state cookie). Only an operation without a caller may say so (the type checks it).
 */
export type RequestBody<Caller extends string = 'none'> =
  | { mediaTypes?: readonly [JsonMediaType, ...JsonMediaType[]]; limitBytes?: number; crossSite?: never }
  | {
      mediaTypes: readonly [FormMediaType];
      limitBytes?: number;
      crossSite?: Caller extends 'none' ? true : never;
    };

/** @internal The body rule of a request, resolved: what the body reader enforces. */
export interface BodyRule {
  /** The media types accepted (exact, lower case; a `charset` other than UTF-8 is refused). */
  mediaTypes: readonly string[];
  /** Whether the body is a form (else JSON). */
  form: boolean;
  limitBytes: number;
  /** Whether a form of this rule may come from any origin. */
  crossSite: boolean;
}

/**
 * @internal Whether an operation's body is a form.
 *
 * @example
 * takesForm({ mediaTypes: [FORM_MEDIA_TYPE], crossSite: true }); // true
 */
export function takesForm(request: RequestBody | undefined): boolean {
  return (request?.mediaTypes as readonly string[] | undefined)?.includes(FORM_MEDIA_TYPE) ?? false;
}

/**
 * @internal The rule of an operation's body: its own `request`, over its group's JSON media types and the
 * `bodyLimitBytes` option.
 *
 * @example
 * bodyRuleOf(undefined, { mediaTypes: ['application/json'], limitBytes: 16384 }); // JSON, 16 KiB
 */
export function bodyRuleOf(
  request: RequestBody | undefined,
  group: { mediaTypes: readonly JsonMediaType[]; limitBytes: number },
): BodyRule {
  const form = takesForm(request);
  return {
    mediaTypes: request?.mediaTypes ?? group.mediaTypes,
    form,
    limitBytes: request?.limitBytes ?? group.limitBytes,
    crossSite: form && request?.crossSite === true,
  };
}

/** @internal Whether two rules read bodies alike (one reader serves both). */
export function ruleKey(rule: BodyRule): string {
  return `${rule.mediaTypes.join(',')} ${rule.limitBytes} ${rule.crossSite}`;
}
