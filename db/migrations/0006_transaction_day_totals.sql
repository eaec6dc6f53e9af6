ALTER TABLE `transaction_days` ADD `total_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `transaction_days` ADD `total_duration_ms` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `transaction_days` ADD `total_consumption_wh` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Running totals of the days already summed (hand-written: drizzle-kit generates only the columns).
UPDATE `transaction_days` SET `total_count` = r.`tc`, `total_duration_ms` = r.`td`, `total_consumption_wh` = r.`tw`
FROM (SELECT `day`, sum(`count`) OVER w AS `tc`, sum(`duration_ms`) OVER w AS `td`, sum(`consumption_wh`) OVER w AS `tw`
      FROM `transaction_days` WINDOW w AS (ORDER BY `day`)) AS r
WHERE r.`day` = `transaction_days`.`day`;
