/** Payload encryption: the key ring, the codec, the data converter of every process and the codec server. */
export { createDataConverter, FAILURE_CONVERTER_PATH } from './data-converter';
export {
  EncryptionCodec,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  PayloadDecryptionError,
  type PayloadDecryptionFailure,
  isEncryptedPayload,
  payloadKeyId,
} from './encryption-codec';
export {
  PayloadKeyRing,
  PayloadKeysError,
  generatePayloadKeyEntry,
  parsePayloadKeys,
  type PayloadKey,
} from './key-ring';
export {
  CodecServerOptionsError,
  DEFAULT_CODEC_SERVER_LIMITS,
  startCodecServer,
  type AccessTokenVerifier,
  type CodecServerLimits,
  type CodecServerOptions,
  type RunningCodecServer,
} from './codec-server';
export {
  DEFAULT_UI_TOKEN_ALGORITHMS,
  UiAccessTokenConfigError,
  jwtAccessTokenVerifier,
  remoteJwksAccessTokenVerifier,
  uiAccessTokenVerifierFromSettings,
  type UiAccessTokenOptions,
  type UiAccessTokenSettings,
} from './ui-access-token';
