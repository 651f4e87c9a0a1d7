"""Renderers: Analysis -> markdown, HTML, JSON, tables. Templates see plain sorted data only."""
