from logsleuth.search.cli import run

run()
