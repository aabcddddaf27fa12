def solve(global_batch, micro_batch, world_size):
    for name, value in (("global_batch", global_batch), ("micro_batch", micro_batch), ("world_size", world_size)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    per_step = micro_batch * world_size
    if global_batch % per_step:
        raise ValueError(f"global batch {global_batch} is not a multiple of micro_batch * world_size = {per_step}")
    return global_batch // per_step
