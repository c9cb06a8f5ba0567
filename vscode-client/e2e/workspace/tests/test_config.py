from app.config import load_config


def test_default_database(monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert load_config().database_url == "sqlite:///app.db"


def test_port_from_env(monkeypatch):
    monkeypatch.setenv("PORT", "9000")
    assert load_config().port == 9000
