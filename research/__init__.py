"""Research beside the product: evaluation (harness, metrics, result records, support and trust)
and training the judges (judge_training/, behind judge_service.py).

Its own layer between the front ends and the core: the `assistant eval` and `assistant judge`
commands import it when they run; the answer path (the service, the runner, the strategies)
never does. It may use the core, index_builder and models; nothing there may use it.
"""
