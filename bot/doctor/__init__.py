"""`reviewbot doctor`: why each tool does or does not run in a repository (`probe` gathers the
facts, `report` judges and renders them)."""
