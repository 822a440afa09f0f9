// Host detection (spec/host-detection.md, H1–H14).
import { APP_MIME_TYPE, AppOnly, AppOnlyUse, Delivery, DeliveryOverride, DeliveryReason, ExtState, HostKind, HostReason, MimeState, Revision } from "./generated/spec";

/** H6: exact match of the app mime type. */
export function mimeIsApp(s: string): bool {
  return s == APP_MIME_TYPE;
}

/** Packs a decision: kind | hostReason << 4 | delivery << 12 | deliveryReason << 16. */
function pack(kind: i32, reason: i32, delivery: i32, deliveryReason: i32): i32 {
  return kind | (reason << 4) | (delivery << 12) | (deliveryReason << 16);
}

function hostReason(ext: i32, mime: i32, appMime: bool): i32 {
  if (ext == ExtState.absent) return HostReason.ext_absent; // H2
  if (ext == ExtState.malformed) return HostReason.ext_malformed; // H5
  if (mime == MimeState.malformed) return HostReason.mime_malformed; // H5
  if (mime == MimeState.absent) return HostReason.mime_absent; // H4
  return appMime ? HostReason.app_mime : HostReason.other_mime_only; // H1, H3
}

/** H1–H11: host kind and view delivery, packed (see pack). */
export function detectHost(ext: i32, mime: i32, appMime: bool, choice: i32, fileFallback: bool): i32 {
  if (ext < ExtState.absent || ext > ExtState.malformed || mime < MimeState.absent || mime > MimeState.malformed || choice < DeliveryOverride.auto || choice > DeliveryOverride.none) {
    return pack(HostKind.plain, HostReason.invalid_facts, Delivery.none, DeliveryReason.invalid_facts); // H11
  }
  const reason = hostReason(ext, mime, appMime);
  const kind = reason == HostReason.app_mime ? HostKind.apps : HostKind.plain;
  if (choice == DeliveryOverride.none) return pack(kind, reason, Delivery.none, DeliveryReason.override_none); // H8
  if (choice == DeliveryOverride.file) return pack(kind, reason, Delivery.file, DeliveryReason.override_file); // H9
  if (kind == HostKind.apps) {
    return pack(kind, reason, Delivery.inline, choice == DeliveryOverride.inline ? DeliveryReason.override_inline : DeliveryReason.apps_host); // H7, H10
  }
  const refused = choice == DeliveryOverride.inline; // H10
  if (fileFallback) return pack(kind, reason, Delivery.file, refused ? DeliveryReason.override_inline_refused : DeliveryReason.file_fallback);
  return pack(kind, reason, Delivery.none, refused ? DeliveryReason.override_inline_refused : DeliveryReason.fallback_off);
}

/** H14: whether an app-only tool is listed (use list) or runs (use call) for this revision and host kind. */
export function appOnly(revision: i32, kind: i32, use: i32): i32 {
  if (revision < Revision.r2025_11_25 || revision > Revision.r2026_07_28 || kind < HostKind.plain || kind > HostKind.apps || use < AppOnlyUse.list || use > AppOnlyUse.call) {
    return AppOnly.invalid_facts;
  }
  if (use == AppOnlyUse.list && revision == Revision.r2026_07_28) return AppOnly.offered; // a listing may not vary per client
  return kind == HostKind.apps ? AppOnly.offered : AppOnly.hidden;
}
