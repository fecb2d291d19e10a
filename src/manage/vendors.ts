// Vendor names accepted by the management API: the seven ids and their aliases vendor_1..vendor_7
// (SPEC order). The name is stored as sent and echoed back; the canonical id drives behaviour.
import { VENDORS, type VendorId } from '../providers/types.ts';

export const VENDOR_ALIASES: readonly string[] = VENDORS.map((_, i) => `vendor_${i + 1}`);
export const ACCEPTED_VENDOR_NAMES: readonly string[] = [...VENDORS, ...VENDOR_ALIASES];

export function canonicalVendorName(name: string): VendorId | undefined {
  if ((VENDORS as readonly string[]).includes(name)) return name as VendorId;
  const i = VENDOR_ALIASES.indexOf(name);
  return i >= 0 ? VENDORS[i] : undefined;
}
