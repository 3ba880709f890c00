from mem.cli.main import main

main()
