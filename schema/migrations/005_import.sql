-- Reserved for import bookkeeping (export and import issue).
SELECT 1;
