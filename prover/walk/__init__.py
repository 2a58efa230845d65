"""The backward claim walk (docs/claim-walk.md): statement, output claims, a layer, settlement."""
