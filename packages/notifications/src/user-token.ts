import type { KeyObject } from 'node:crypto';
import { fail, ok, type Result } from '@herald/protocol-core';
import {
  type CryptoKey,
  importPKCS8,
  importSPKI,
  type JWTPayload,
  errors as joseErrors,
  jwtVerify,
  SignJWT,
} from 'jose';
import { NotificationError } from './errors.js';
import type { NotificationUser } from './notification-user.js';

/** The audience user tokens carry unless told otherwise. */
export const DEFAULT_USER_TOKEN_AUDIENCE = 'herald-notifications';

/** A key in any form jose takes, or a PEM text (PKCS#8 for a private key, SPKI for a public one). */
export type UserTokenKey = CryptoKey | KeyObject | string;

/** Options of {@link signUserToken}: who the token is for, how long it lives, and the key it is signed with. */
export interface SignUserTokenOptions {
  /** The shared secret (HS256, at least 32 characters); or give `privateKey`. */
  readonly secret?: string | Uint8Array | undefined;
  /** An Ed25519 private key (EdDSA); the service verifies with its public key. */
  readonly privateKey?: UserTokenKey | undefined;
  readonly userId: string | number;
  /** The user's notifiable type (`User` by default). */
  readonly userType?: string | undefined;
  /** The user's display name (given to presence channels). */
  readonly name?: string | undefined;
  /** The user's email address (the `email` claim): where away notifications are emailed when a send names none. */
  readonly email?: string | undefined;
  /** Lifetime: seconds, or a jose time span such as `'10m'` (default 10 minutes). */
  readonly expiresIn?: number | string | undefined;
  /** The `aud` claim (default `herald-notifications`). */
  readonly audience?: string | undefined;
  /** The `iss` claim, when the service checks one. */
  readonly issuer?: string | undefined;
}

/** Options of {@link createUserTokenVerifier}: the keys accepted and the claims checked. */
export interface UserTokenVerifierOptions {
  /** The shared secret HS256 tokens are signed with (at least 32 characters). */
  readonly secret?: string | Uint8Array | undefined;
  /** The Ed25519 public key EdDSA tokens are checked with. */
  readonly publicKey?: UserTokenKey | undefined;
  /** The audience a token must name (default `herald-notifications`). */
  readonly audience?: string | readonly string[] | undefined;
  /** The issuer a token must name; not checked when not given. */
  readonly issuer?: string | undefined;
  /** Seconds of clock difference allowed on `exp`, `nbf` and `iat` (default 30). */
  readonly clockToleranceSeconds?: number | undefined;
}

/** Why a user token was refused. */
export interface UserTokenError {
  readonly reason: 'malformed' | 'bad_signature' | 'expired' | 'claim_mismatch' | 'missing_subject';
  readonly message: string;
}

/** Checks user tokens. */
export interface UserTokenVerifier {
  /** The user a token names, or why it is refused (bad signature, expired, wrong audience or issuer…). */
  verify(token: string): Promise<Result<NotificationUser, UserTokenError>>;
}

const MIN_SECRET_LENGTH = 32;

function secretKey(secret: string | Uint8Array, what: string): Uint8Array {
  const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
  if (bytes.length < MIN_SECRET_LENGTH) {
    throw new NotificationError(
      'invalid_options',
      `${what} must be at least ${MIN_SECRET_LENGTH} bytes long for HS256`,
    );
  }
  return bytes;
}

async function asymmetricKey(key: UserTokenKey, kind: 'private' | 'public'): Promise<CryptoKey | KeyObject> {
  if (typeof key !== 'string') return key;
  try {
    return kind === 'private' ? await importPKCS8(key, 'EdDSA') : await importSPKI(key, 'EdDSA');
  } catch (cause) {
    throw new NotificationError(
      'invalid_options',
      `the ${kind} key is not a PEM Ed25519 ${kind === 'private' ? 'PKCS#8' : 'SPKI'} key`,
      { cause },
    );
  }
}

/**
 * Signs a short-lived user token (a JWT) for the bell and the JSON API: the host backend calls this for its
 * signed-in user and hands the token to the page.
 *
 * @throws {NotificationError} `invalid_options` when neither key is given, the secret is too short or the key is unusable.
 * @example
 * const token = await signUserToken({ secret: process.env.NOTIFICATION_USER_TOKEN_SECRET!, userId: user.id, expiresIn: '10m' });
 */
export async function signUserToken(options: SignUserTokenOptions): Promise<string> {
  const claims: JWTPayload = {};
  if (options.name !== undefined) claims.name = options.name;
  if (options.email !== undefined) claims.email = options.email;
  if (options.userType !== undefined) claims.notifiable_type = options.userType;
  let jwt = new SignJWT(claims)
    .setSubject(String(options.userId))
    .setIssuedAt()
    .setExpirationTime(
      typeof options.expiresIn === 'number'
        ? Math.floor(Date.now() / 1000) + options.expiresIn
        : (options.expiresIn ?? '10m'),
    )
    .setAudience(options.audience ?? DEFAULT_USER_TOKEN_AUDIENCE);
  if (options.issuer !== undefined) jwt = jwt.setIssuer(options.issuer);
  if (options.privateKey !== undefined) {
    return jwt.setProtectedHeader({ alg: 'EdDSA' }).sign(await asymmetricKey(options.privateKey, 'private'));
  }
  if (options.secret !== undefined) {
    return jwt.setProtectedHeader({ alg: 'HS256' }).sign(secretKey(options.secret, 'secret'));
  }
  throw new NotificationError('invalid_options', 'signUserToken needs a secret or a privateKey');
}

function refusal(error: unknown): UserTokenError {
  if (error instanceof joseErrors.JWTExpired)
    return { reason: 'expired', message: 'the user token has expired' };
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    return { reason: 'claim_mismatch', message: `the user token's "${error.claim}" claim is not accepted` };
  }
  if (
    error instanceof joseErrors.JWSSignatureVerificationFailed ||
    error instanceof joseErrors.JOSEAlgNotAllowed
  ) {
    return { reason: 'bad_signature', message: 'the user token is not signed with an accepted key' };
  }
  return { reason: 'malformed', message: 'the user token is not a valid JWT' };
}

/**
 * Creates a verifier of user tokens signed by {@link signUserToken} (or any JWT library): HS256 with the
 * shared secret and/or EdDSA with the public key; `exp` is required and checked with the clock tolerance,
 * `aud` always, `iss` when configured.
 *
 * @throws {NotificationError} `invalid_options` when no key is given, the secret is too short or the key is unusable.
 * @example
 * const userTokens = await createUserTokenVerifier({ secret: process.env.NOTIFICATION_USER_TOKEN_SECRET });
 */
export async function createUserTokenVerifier(options: UserTokenVerifierOptions): Promise<UserTokenVerifier> {
  const secret = options.secret === undefined ? undefined : secretKey(options.secret, 'secret');
  const publicKey =
    options.publicKey === undefined ? undefined : await asymmetricKey(options.publicKey, 'public');
  if (!secret && !publicKey) {
    throw new NotificationError('invalid_options', 'a user token verifier needs a secret or a publicKey');
  }
  const algorithms = [...(secret ? ['HS256'] : []), ...(publicKey ? ['EdDSA', 'Ed25519'] : [])];
  const audience = options.audience ?? DEFAULT_USER_TOKEN_AUDIENCE;
  return {
    async verify(token) {
      try {
        const { payload } = await jwtVerify(
          token,
          // The header's alg picks the key; `algorithms` has already refused any other alg (and `none`).
          (header) => (header.alg === 'HS256' ? (secret as Uint8Array) : (publicKey as CryptoKey)),
          {
            algorithms,
            audience: typeof audience === 'string' ? audience : [...audience],
            issuer: options.issuer,
            clockTolerance: options.clockToleranceSeconds ?? 30,
            requiredClaims: ['exp', 'sub'],
          },
        );
        if (typeof payload.sub !== 'string' || payload.sub === '') {
          return fail({ reason: 'missing_subject', message: 'the user token names no user (sub)' });
        }
        return ok({
          id: payload.sub,
          type: typeof payload.notifiable_type === 'string' ? payload.notifiable_type : undefined,
          name: typeof payload.name === 'string' ? payload.name : undefined,
          email: typeof payload.email === 'string' && payload.email.includes('@') ? payload.email : undefined,
        });
      } catch (error) {
        return fail(refusal(error));
      }
    },
  };
}
