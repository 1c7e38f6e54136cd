from sqlgenie.launcher import main

main()
