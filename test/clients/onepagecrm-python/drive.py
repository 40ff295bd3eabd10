"""Drives OnePageCRM's python client (onepagecrm/, unchanged) against our API.

Usage: drive.py BASE_URL USER_ID API_KEY CONTACT_TAG OPERATOR_URL OPERATOR_TOKEN ACCOUNT_ID
Prints one JSON object: what each step saw, or the step's error. It never stops at the first failure,
so the test shows every step that differs. Its last steps switch the account to OnePageCRM's list
format through the operator API (OPERATOR_URL, OPERATOR_TOKEN) and iterate the four lists OnePageCRM
answers as bare arrays.
"""
import datetime
import json
import sys
import traceback

import requests
from onepagecrm import OnePageCRMAPI, RequestError, ResponseDict

base_url, user_id, api_key, tag, operator_url, operator_token, account_id = sys.argv[1:8]
seen = {}


def step(name):
    def run(fn):
        try:
            seen[name] = fn()
        except RequestError as error:
            seen[name] = {'error': 'RequestError', 'status': error.status, 'message': error.message}
        except Exception as error:  # noqa: BLE001 - recorded for the test to show
            seen[name] = {'error': type(error).__name__, 'message': str(error), 'trace': traceback.format_exc()[-800:]}
        return fn
    return run


client = OnePageCRMAPI(user_id, api_key, base_url=base_url)


@step('connect')
def _():
    # What the client keeps from GET /bootstrap's summary blocks.
    return {
        'statuses': [{'id': s['status']['id'], 'text': s['status']['text']} for s in client.statuses],
        'tags': client.tags,
        'team_stream': client.team_stream,
        'contact_counts_all_total': [entry.get('total_count') for entry in client.contact_counts.get('all', [])],
    }


@step('users')
def _():
    data = client.get('users')
    return {'type': type(data).__name__, 'ids': [u['user']['id'] for u in data['users']]}


@step('statuses')
def _():
    data = client.get('statuses')
    return [{'id': s['status']['id'], 'text': s['status']['text']} for s in data['statuses']]


@step('create_contact')
def _():
    contact = client.post('contacts', {'first_name': 'Ada', 'last_name': 'Python', 'company_name': 'Snake Works', 'tags': [tag]})['contact']
    return {'id': contact['id'], 'first_name': contact['first_name'], 'tags': contact['tags'], 'starred': contact['starred']}


contact_id = seen['create_contact'].get('id') if isinstance(seen.get('create_contact'), dict) else None


@step('tags')
def _():
    data = client.get('tags')
    return {entry['name']: entry['counts'] for entry in data['tags']}


@step('star')
def _():
    starred = client.request('PUT', 'contacts', contact_id, 'star')['contact']['starred']
    listed = [c['contact']['id'] for c in client.get_contacts(starred='true')]
    unstarred = client.request('PUT', 'contacts', contact_id, 'unstar')['contact']['starred']
    return {'starred': starred, 'listed': contact_id in listed, 'unstarred': unstarred}


@step('patch')
def _():
    return client.patch('contacts', contact_id, {'job_title': 'CTO'})['contact']['job_title']


@step('action_stream')
def _():
    today = datetime.date.today().isoformat()
    action = client.post('actions', {'contact_id': contact_id, 'assignee_id': user_id, 'text': 'Call Ada', 'status': 'date', 'date': today})['action']
    stream = client.get('action_stream')
    ids = [c['contact']['id'] for c in stream['contacts']]
    return {'action_status': action['status'], 'contact_in_stream': contact_id in ids}


@step('team_stream')
def _():
    data = client.get('team_stream')
    return {'contact_in_stream': contact_id in [c['contact']['id'] for c in data['contacts']], 'total_count': data['total_count']}


@step('delete_and_undo')
def _():
    client.delete('contacts', contact_id)
    try:
        client.get('contacts', contact_id)
        gone = False
    except RequestError as error:
        gone = error.status
    client.delete('contacts', contact_id, undo='true')
    back = client.get('contacts', contact_id)['contact']['id']
    return {'after_delete': gone, 'after_undo': back}


@step('not_found')
def _():
    try:
        client.get('contacts', '000000000000000000000000')
        return 'no error'
    except RequestError as error:
        return {'status': error.status, 'has_message': bool(error.message)}


@step('object_responses')
def _():
    objects = OnePageCRMAPI(user_id, api_key, base_url=base_url, response_type='object')
    contacts = objects.get('contacts', per_page=5).contacts
    return {'is_response_dict': isinstance(contacts[0], ResponseDict), 'id_attribute': bool(contacts[0].contact.id)}


@step('list_format')
def _():
    # Not the client's: the operator's API (auth-server) sets the account's list format.
    response = requests.patch(
        f'{operator_url}/operator/accounts/{account_id}/settings',
        json={'settings': {'list_format': 'onepagecrm'}},
        headers={'Authorization': f'Bearer {operator_token}'},
    )
    return {'status': response.status_code, 'list_format': response.json().get('settings', {}).get('list_format')}


@step('onepagecrm_users')
def _():
    data = client.get('users')
    return {'type': type(data).__name__, 'ids': [entry['user']['id'] for entry in data]}


@step('onepagecrm_statuses')
def _():
    data = client.get('statuses')
    return {'type': type(data).__name__, 'statuses': {entry['status']['status']: entry['status']['text'] for entry in data}}


@step('onepagecrm_lead_sources')
def _():
    client.post('lead_sources', {'text': f'Python {tag}'})
    data = client.get('lead_sources')
    return {'type': type(data).__name__, 'texts': [source['text'] for source in data], 'ids': all(source['id'] for source in data)}


@step('onepagecrm_call_results')
def _():
    data = client.get('call_results')
    return {'type': type(data).__name__, 'ids': [entry['call_result']['id'] for entry in data],
            'results': [entry['call_result']['result'] for entry in data],
            'counted': all(isinstance(entry['call_result']['total_counts'], int) for entry in data)}


print(json.dumps(seen))
