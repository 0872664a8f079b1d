import sys

from bansha.cli import main

sys.exit(main())
