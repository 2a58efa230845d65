from cairn.cli import app

app()
