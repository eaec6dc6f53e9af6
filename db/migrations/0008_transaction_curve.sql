CREATE TABLE `transaction_curve` (
	`transaction_id` text NOT NULL,
	`at` integer NOT NULL,
	`energy_wh` integer NOT NULL,
	PRIMARY KEY(`transaction_id`, `at`)
) WITHOUT ROWID;
