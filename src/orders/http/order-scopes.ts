import { defineScope } from '../../auth/domain/scope';

/** What a key needs to read its account's orders: list and get them. */
export const ORDERS_READ = defineScope('orders:read', 'List and get orders');

/** What a key needs to sell: place, deliver and cancel orders. */
export const ORDERS_WRITE = defineScope('orders:write', 'Place, deliver and cancel orders');
