export { copyFixtureFolder, type TempFolder } from './fixture-folder.js';
export {
  type EchoUpstream,
  type EchoUpstreamOptions,
  PNG_1X1,
  type RecordedRequest,
  startEchoUpstream,
  WAV_EMPTY,
} from './echo-upstream.js';
export { CONFORMANCE_FOLDER, startConformanceUpstream } from './conformance-upstream.js';
export { freePort, type Haproxy, haproxyBinary, haproxyConfig, startHaproxy } from './haproxy.js';
