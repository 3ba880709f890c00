from mem.entry import main

main()
