// Outgoing mail: the settings (SMTP or a JSON mail API), the test mail, and `send`, which
// sign-in uses for codes.
export { createMailStore, type MailStore } from './mail.store.js';
export {
  createMailService,
  MAIL_SET,
  MAIL_TESTED,
  type MailDeps,
  type MailService,
  type MailSettingsView,
} from './mail.service.js';
export { environmentMail, type EnvironmentMail } from './mail.environment.js';
export { mailRoutes } from './mail.routes.js';
export { MailSettingsBody, MailTestReply } from './mail.schemas.js';
export { sendMail, type Mail, type SendResult } from './mail.send.js';
export {
  DEFAULT_TIMEOUT_S,
  isAddress,
  MailTransport,
  parseMailSettings,
  SmtpSecurity,
  type MailSettings,
} from './mail.settings.js';
export { mailEvents, type MailEvents } from './mail.events.js';
