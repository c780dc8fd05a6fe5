"""graphkit: patient temporal knowledge graphs, guideline graphs and their alignment, in Neo4j."""

__version__ = "0.1.0"
