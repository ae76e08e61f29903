/**
 * The failure converter of every process and of the workflow bundle (`failureConverterPath`): failure messages
 * and stack traces go into an encoded payload, so the payload codec encrypts them with everything else.
 * Workflow code loads this module: it must stay free of Node built-ins.
 */
import { DefaultFailureConverter } from '@temporalio/common';

/** Named export the SDK looks for in a `failureConverterPath` module. */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
