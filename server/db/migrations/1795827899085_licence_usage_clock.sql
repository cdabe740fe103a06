-- The clock turned back (licence.clock_backwards) counted for the usage statement's clock
-- block: all of them, and how many the last statement already reported.
ALTER TABLE licence_usage_state ADD COLUMN clock_backwards INTEGER NOT NULL DEFAULT 0;
ALTER TABLE licence_usage_state ADD COLUMN clock_backwards_reported INTEGER NOT NULL DEFAULT 0;
