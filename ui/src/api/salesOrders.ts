// Writes to sales order lines, shared by every screen that shows them (Planning, Materials).
import type { BodyOf } from './contract.ts'
import { sendWrite } from './writes.ts'

/** A new delivery date (`YYYY-MM-DD`) for a sales order line. */
export const updateSalesLineDelivery = (id: string, deliveryDate: string) =>
  sendWrite('/exact/updateSalesOrderLine', 'PUT', { ID: id, DeliveryDate: deliveryDate } satisfies BodyOf<'/exact/updateSalesOrderLine', 'put'>)
