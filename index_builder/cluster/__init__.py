"""Index builds on a Ray cluster: the same passages as the single-machine path, made by many
workers. shards (how a dump or passage file is cut), worker (parse, chunk, embed, write Lance
fragments), build (the driver: plan, schedule, commit, resume), ray_runtime (connecting)."""
