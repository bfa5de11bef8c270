"""Child processes: spawn, capture (bounded, secret values never cut in two), kill,
reap. The layer under the sandbox: it imports only config and the base modules."""
