import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';

/** How many placed orders an account of each plan may hold at once, unless RATE_LIMIT_PLANS sets `openOrders`. */
export const DEFAULT_OPEN_ORDER_CAPS: Readonly<Record<string, number>> = {
  free: 5,
  pro: 50,
  business: 500,
  enterprise: 5_000,
};

/** The cap of placed orders by plan: the defaults with RATE_LIMIT_PLANS' `openOrders` over them. */
@Injectable()
export class OpenOrderCaps {
  private readonly caps: Readonly<Record<string, number>>;

  constructor(config: AppConfig) {
    this.caps = { ...DEFAULT_OPEN_ORDER_CAPS, ...config.planOpenOrders };
  }

  /** A plan the table does not name has the free plan's cap. */
  capOf(plan: string): number {
    return this.caps[plan] ?? this.caps.free;
  }
}
