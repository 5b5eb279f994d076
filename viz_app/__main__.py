import sys

from viz_app.shell.launcher import main

sys.exit(main())
