from sqlgenie.cli import main

main()
