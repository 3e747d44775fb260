"""The whole flow with the keyboard alone, and axe-core's rules on each state of the page (issue 50,
browser test 6)."""
from axe_selenium_python import Axe
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.action_chains import ActionChains

from conftest import FIXTURES, present, screenshot, wait


def serious_violations(driver):
    axe = Axe(driver)
    axe.inject()
    results = axe.run()
    return [f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
            for v in results["violations"] if v["impact"] in ("serious", "critical")]


def tab_to(driver, predicate, limit=80):
    """Presses Tab until the focused element satisfies `predicate` (a JS expression on `e`)."""
    for _ in range(limit):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        if driver.execute_script(f"const e = document.activeElement; return !!({predicate});"):
            return driver.switch_to.active_element
    raise AssertionError(f"Tab never reached an element where {predicate}")


def type_keys(driver, text):
    ActionChains(driver).send_keys(text).perform()


def test_the_flow_with_the_keyboard_alone_and_no_serious_axe_violation(desk, browser):
    present(FIXTURES / "passport-pace", "--pace")
    browser.get(desk.address)
    wait(browser, lambda d: "card present" in d.find_element(By.ID, "reader-list").text, "the page did not show the reader")
    assert serious_violations(browser) == []

    tab_to(browser, "e.id === 'document-number'")
    type_keys(browser, "C01X00T47")
    tab_to(browser, "e.id === 'document-number-check'")
    type_keys(browser, "8")
    tab_to(browser, "e.id === 'birth'")
    type_keys(browser, "880412")
    tab_to(browser, "e.id === 'birth-check'")
    type_keys(browser, "3")
    tab_to(browser, "e.id === 'expiry'")
    type_keys(browser, "340930")
    tab_to(browser, "e.id === 'expiry-check'")
    type_keys(browser, "5")
    assert "check digit ok" in browser.find_element(By.ID, "expiry-note").text
    type_keys(browser, Keys.ENTER)  # submits the form
    wait(browser, lambda d: d.execute_script("const f = document.getElementById('face'); return f.complete && f.naturalWidth > 0"),
         "the document was not read after the keyboard's Enter")

    # A verdict's details open with the keyboard.
    summary = tab_to(browser, "e.tagName === 'SUMMARY' && e.closest('li').dataset.check === 'chain'")
    type_keys(browser, Keys.ENTER)
    assert browser.execute_script("return document.querySelector(\"li[data-check='chain'] details\").open")
    assert "CSCA" in summary.find_element(By.XPATH, "..").text
    screenshot(browser, "11-keyboard-verdict-open")
    assert serious_violations(browser) == []

    # Save dump with the keyboard.
    tab_to(browser, "e.id === 'save-dump'")
    type_keys(browser, Keys.ENTER)
    wait(browser, lambda d: d.find_element(By.ID, "save-status").text.startswith("Saved to"), "Save dump did not answer the keyboard")

    # A typo is announced at the field, with the check digit the MRZ rule gives.
    tab_to(browser, "e.id === 'birth'")
    type_keys(browser, "880412")
    tab_to(browser, "e.id === 'birth-check'")
    type_keys(browser, "4")
    note = browser.find_element(By.ID, "birth-note").text
    assert "does not match" in note and "gives 3" in note, note
    assert browser.find_element(By.ID, "birth-check").get_attribute("aria-invalid") == "true"
    screenshot(browser, "12-check-digit-typo")
    assert serious_violations(browser) == []
