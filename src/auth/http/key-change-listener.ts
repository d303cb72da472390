import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { KeyChangeChannel } from '../domain/key-change';
import { ApiKeyAuthenticator } from '../application/api-key-authenticator';

/**
 * An instance that serves requests hears the keys command's changes and drops
 * the keys they name from its cache at once; the keys command itself, which
 * serves nothing, does not listen.
 */
@Injectable()
export class KeyChangeListener implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly channel: KeyChangeChannel,
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    if (!this.adapterHost.httpAdapter) return;
    this.channel.subscribe((change) => this.authenticator.forget(change));
  }

  onApplicationShutdown(): Promise<void> {
    return this.channel.close();
  }
}
