import sys

from viz_app.cli import main

sys.exit(main())
