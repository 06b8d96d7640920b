import { fieldError, validationError } from 'tenant-auth-core';

/**
 * @internal The fields of an `application/x-www-form-urlencoded` body, each a string, as the WHATWG URL
 * standard reads them (`+` is a space, percent escapes are read as UTF-8). Flat:
 * `a[b]=1` is the field `a[b]`. A field sent twice is refused (`400 validation_failed`), as a repeated
 * query parameter is: an operation reads each field once. The fields are own properties (a `__proto__`
 * field too, which the checks of every parsed body then refuse).
 *
 * @example
 * formFields('SAMLResponse=PHNhbWw%2B&RelayState=abc'); // { SAMLResponse: '<saml>', RelayState: 'abc' }
 */
export function formFields(text: string): Record<string, string> {
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) {
    if (fields.has(name)) {
      throw validationError([fieldError(name, 'invalid_value', `${name} must be given once.`)]);
    }
    fields.set(name, value);
  }
  return Object.fromEntries(fields);
}
