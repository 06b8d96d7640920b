export type { AccessKeyPair, AccessTokenKeyOptions, AsymmetricAlgorithm, KeyMaterial } from './keys.js';
export { MIN_SECRET_BYTES } from './keys.js';
export type {
  RefreshClaims,
  RefreshTokenFields,
  TokenService,
  TokenServiceOptions,
} from './token-service.js';
export {
  ACCESS_TOKEN_TYP,
  createTokenService,
  hashRefreshToken,
  REFRESH_TOKEN_TYP,
} from './token-service.js';
