"""serve's answers (serve/cache.py): made once per index generation, by one computation however many
ask at once, dropped when `index` commits; over a real index whose manifest is replaced as `index`
replaces it (by rename)."""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from logsleuth.serve.cache import Answers, generation
from serve_helpers import indexed_corpus


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_corpus(tmp_path_factory.mktemp("serve-cache"))


def commit(db: Path) -> None:
    """A new manifest put in place by rename, as a commit of `index` does."""
    tmp = db / "files.parquet.new"
    shutil.copyfile(db / "files.parquet", tmp)
    time.sleep(0.01)  # another mtime, whatever the file system's resolution
    os.replace(tmp, db / "files.parquet")


def test_one_computation_for_many_concurrent_asks_and_again_after_a_commit(db: Path) -> None:
    made: list[str] = []
    lock = threading.Lock()

    def make() -> str:
        time.sleep(0.2)  # long enough for every ask to arrive while it is being made
        with lock:
            made.append(threading.current_thread().name)
        return f"answer {len(made)}"

    async def ask_all(answers: Answers, n: int) -> list[str]:
        return list(await asyncio.gather(*(answers.get(("route", "q=x"), make) for _ in range(n))))

    answers = Answers(db)
    try:
        first = asyncio.run(ask_all(answers, 50))
        assert first == ["answer 1"] * 50 and len(made) == 1 and made[0].startswith("logsleuth-answer")
        assert asyncio.run(ask_all(answers, 5)) == ["answer 1"] * 5 and len(made) == 1  # kept
        before = generation(db)
        commit(db)
        assert generation(db) != before
        assert asyncio.run(ask_all(answers, 5)) == ["answer 2"] * 5 and len(made) == 2  # a new generation
    finally:
        answers.close()


def test_a_failed_computation_reaches_every_asker_and_is_not_kept(db: Path) -> None:
    calls = []

    def broken() -> str:
        calls.append(1)
        time.sleep(0.1)
        raise RuntimeError("index changed while reading it")

    async def ask(answers: Answers) -> list[object]:
        return list(await asyncio.gather(*(answers.get("k", broken) for _ in range(3)), return_exceptions=True))

    answers = Answers(db)
    try:
        assert all(isinstance(e, RuntimeError) for e in asyncio.run(ask(answers))) and len(calls) == 1
        asyncio.run(ask(answers))
        assert len(calls) == 2  # asked again: computed again
    finally:
        answers.close()


def test_the_kept_answers_are_bounded(db: Path) -> None:
    answers = Answers(db, kept=10)

    async def fill() -> None:
        for i in range(30):
            await answers.get(i, lambda i=i: str(i))  # type: ignore[misc]

    try:
        asyncio.run(fill())
        assert len(answers._done) == 10 and answers.misses == 30
    finally:
        answers.close()
