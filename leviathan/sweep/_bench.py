"""stub"""

__all__ = ["bench_sweep", "format_sweep_bench"]


def bench_sweep(): ...
def format_sweep_bench(r): ...
