from logsleuth.cli import run

run()
