/**
 * The config.yaml of one branch server of an app-builder app (spec 1.2.4, 2.3): one folder per
 * branch, named after it, starting unverified with the app's verification token. Pure.
 */
import { SvcError } from '../../core/svc-error.js';
import { formatViolations, validate } from '../../schemas/validate.js';
import type { SvcConfig } from '../../schemas/types.js';
import {
  type AppBuilderPlace,
  apiBaseUrlOf,
  branchFolder,
  swaggerUrlOf,
} from '../sources/app-builder-urls.js';
import { type InitialConfigInput, initialConfig } from './initial-config.js';

export interface AppBuilderConfigInput
  extends Omit<InitialConfigInput, 'openapi' | 'contentDir' | 'allowExternalRefs' | 'baseUrl' | 'serverId'> {
  /** The app's server id; each branch's is `<serverId>-<branch folder>`. */
  serverId: string;
  place: AppBuilderPlace;
  verificationToken: string;
  verified?: boolean;
}

export function appBuilderConfig(input: AppBuilderConfigInput): SvcConfig {
  const { place, verificationToken, verified, ...common } = input;
  const folder = branchFolder(place.branch);
  // initialConfig checks the app fields and the auth placement as for any app.
  const base = initialConfig({
    ...common,
    serverId: `${input.serverId.slice(0, 62 - folder.length).replace(/-+$/, '')}-${folder}`,
    openapi: swaggerUrlOf(place),
    baseUrl: apiBaseUrlOf(place),
  });
  const config: SvcConfig = {
    ...base,
    server: { ...base.server, name: folder },
    app: { ...base.app, provider: 'app_builder' },
    source: {
      kind: 'app_builder',
      appId: place.appId,
      branch: place.branch,
      ...(place.customDomain ? { customDomain: place.customDomain } : {}),
      ...(place.platformOrigin ? { platformOrigin: place.platformOrigin } : {}),
      verificationToken,
      verified: verified ?? false,
    },
  };
  const checked = validate('config', config);
  if (!checked.ok) {
    throw new SvcError('USAGE', 'the app-builder settings are not valid', {
      details: formatViolations(checked.errors),
    });
  }
  return config;
}
