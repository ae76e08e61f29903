/** Payload encryption: the key ring, the codec, the data converter of every process and the codec server. */
export { createDataConverter, FAILURE_CONVERTER_PATH } from './data-converter';
export {
  EncryptionCodec,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  PayloadDecryptionError,
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
  startCodecServer,
  type AccessTokenVerifier,
  type CodecServerOptions,
  type RunningCodecServer,
} from './codec-server';
export { jwtAccessTokenVerifier, remoteJwksAccessTokenVerifier } from './ui-access-token';
