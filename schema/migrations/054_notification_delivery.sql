-- Delivery of personal notifications by email and chat.

-- Why email was turned off by the service rather than by the person (the
-- mail server refused their address for good, or they unsubscribed by an
-- email's link); shown while email_enabled is false.
ALTER TABLE notification_settings ADD COLUMN email_disabled_reason text;

-- Notifications an email digest has handled: sent, or skipped at send time
-- (the type was off, the recipient could no longer read the ticket). A
-- digest never mails a notification twice.
CREATE TABLE notification_emails (
    notification_id uuid PRIMARY KEY REFERENCES notifications (id) ON DELETE CASCADE,
    user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    status          text NOT NULL CHECK (status IN ('sent', 'skipped')),
    at              timestamptz NOT NULL
);
