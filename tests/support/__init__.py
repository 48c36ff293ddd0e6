"""Real-parts test harness: a loopback package index, wheel builders and venvs.

Nothing here mocks pip: end-to-end tests run the real pip of a real venv
against :class:`support.index.LocalIndex` on 127.0.0.1.
"""
