from logsleuth.search_cli import run

run()
