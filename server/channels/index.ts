// Approval channels: what a notify connector sends (message.ts) and the signed, expiring,
// single-use approve and deny links (links.ts). The kinds themselves are connector kinds
// (server/connectors/kinds/{mail,slack,teams,webhook}.ts).
export {
  parseApprovalArgs,
  parseNotificationArgs,
  approvalHeading,
  approvalFacts,
  approvalFooter,
  approvalText,
  scrub,
  clipAnswer,
  type ApprovalMessage,
  type NotificationMessage,
  type Delivery,
} from './message.js';
export {
  createLinkSigner,
  loadOrCreateLinkKey,
  LINK_KEY_FILE,
  LinkDecision,
  LinkRefusal,
  type LinkSigner,
  type LinkSignerDeps,
  type LinkPayload,
  type LinkCheck,
} from './links.js';
export { createLinkUseStore, type LinkUse, type LinkUses } from './links.store.js';
