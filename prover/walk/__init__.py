"""The backward claim walk (ARCHITECTURE §4): statement, output claims, a layer, settlement."""
