"""Names the a2a-mock command line shares with its server (server.py): the --dialect
choices and where the REST binding is served. Apart from server.py so that parsing the
options (and --check, --list, schema) does not load starlette and the protocol codecs."""

DIALECT_CHOICES = ("0.1", "0.3", "1.0", "all")
#: Where the HTTP+JSON/REST binding is served (0.3's routes under it start with /v1).
REST_PREFIX = "/rest"
