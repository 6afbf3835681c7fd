"""Module docstring mentioning import nothing_here."""
import os.path
import json as j
from . import models
from ..core.db import Session, query
from pkg.sub import thing

RETRIES = 3

# from fake import ghost

@decorate
def fetch(url):
    return query(Session(), url)


class Client(Base):
    def get(self, key):
        return self.cache.lookup(key)
