"""Provision and run Neo4j Community 5.26 LTS without Docker: Java 17+ is all a machine needs."""

from graphkit.neo4j.artifacts import Lock, load_lock
from graphkit.neo4j.server import LocalNeo4j, ServerStatus

__all__ = ["Lock", "load_lock", "LocalNeo4j", "ServerStatus"]
