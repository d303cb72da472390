import type { AppConfig } from '../config/app-config';

/**
 * The address every absolute URL the service writes starts with, ending in
 * `/v1`: the configured one of the instance's own environment, never the
 * request's Host or X-Forwarded-* headers.
 */
export function baseUrlOf(config: AppConfig): string {
  return (config.appEnv === 'staging' ? config.stagingBaseUrl : config.publicBaseUrl).replace(/\/+$/, '');
}
