// Wire shapes of GET/PUT /v1/settings/mail and POST /v1/settings/mail/test. Types only
// besides typebox: the console takes them too. The PUT body is parsed by hand
// (parseMailSettings names the field at fault), so it has no schema here.
import { Type, type Static } from 'typebox';

const SecretRefBody = Type.Union([
  Type.Object({ file: Type.String() }, { additionalProperties: false }),
  Type.Object({ env: Type.String() }, { additionalProperties: false }),
]);

export const MailSettingsBody = Type.Object(
  {
    transport: Type.Union([Type.Literal('smtp'), Type.Literal('api')]),
    timeout_s: Type.Integer({ minimum: 1, maximum: 120 }),
    smtp: Type.Optional(
      Type.Object({
        host: Type.String(),
        port: Type.Integer(),
        security: Type.Union([Type.Literal('starttls'), Type.Literal('ssl'), Type.Literal('none')]),
        username: Type.Optional(Type.String()),
        password: Type.Optional(SecretRefBody),
        from: Type.String(),
        ca_file: Type.Optional(Type.String()),
      }),
    ),
    api: Type.Optional(
      Type.Object({ url: Type.String(), token: SecretRefBody, from: Type.String() }),
    ),
  },
  { description: 'secrets appear as {file} or {env} references, never as values' },
);

export type MailSettingsBody = Static<typeof MailSettingsBody>;

export const MailSettingsView = Type.Object({
  configured: Type.Boolean(),
  settings: Type.Union([MailSettingsBody, Type.Null()]),
  updated_at: Type.Union([Type.String(), Type.Null()]),
  environment: Type.Optional(
    Type.Array(Type.String(), {
      description: 'set when SVC_MAIL_* / SVC_SMTP_* variables set mail: their names',
    }),
  ),
});

export type MailSettingsView = Static<typeof MailSettingsView>;

export const MailTestReply = Type.Object({
  ok: Type.Boolean(),
  detail: Type.String(),
  duration_ms: Type.Integer(),
});
export type MailTestReply = Static<typeof MailTestReply>;
