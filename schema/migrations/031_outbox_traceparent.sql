-- Tracing (issue 14): the W3C traceparent of the request that wrote an
-- outbox row, so the relay's dispatch (and the workflow it starts) joins
-- that request's trace. NULL when tracing is off.
ALTER TABLE outbox ADD COLUMN traceparent text;
