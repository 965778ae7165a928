-- Reserved for time entries, labor rates, capitalization exports (time and money issue).
SELECT 1;
