-- Reserved for webhooks, deliveries (durable events issue).
SELECT 1;
