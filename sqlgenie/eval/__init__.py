"""Evaluation harness: benchmark datasets (Spider and Defog layouts), a loader that
copies SQLite databases into PostgreSQL schemas, gold SQL transpilation, result
comparison, metrics and the task runners behind ``sqlgenie eval``.

Modules stay small and mostly pure so later capabilities (onboarding, the example
bank, ask, the autocorrectors) can add their own tasks on top of them.
"""
